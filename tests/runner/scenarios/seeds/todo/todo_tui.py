"""A small curses to-do list, written for the runner's tests (stdlib only).

Keys: a = add an item (type it, Enter), Up/Down = move, Space = toggle done, d = delete,
s = save to todo.json, q = save and quit (exit 0), Q = quit without saving (exit 3).
A reverse-video title bar, green done items, a red status line on errors: the screenshots
of it check colours as well as text.
"""

import curses
import json
import sys
from pathlib import Path

STORE = Path("todo.json")


def load() -> list[dict]:
    if STORE.exists():
        return json.loads(STORE.read_text())["items"]
    return []


def save(items: list[dict]) -> None:
    STORE.write_text(json.dumps({"items": items, "count": len(items),
                                 "allDone": all(i["done"] for i in items)}, indent=2) + "\n")


def draw(screen, items, selected, status, error):
    screen.erase()
    height, width = screen.getmaxyx()
    title = f" To-do ({sum(i['done'] for i in items)}/{len(items)} done) "
    screen.addstr(0, 0, title.ljust(width - 1), curses.A_REVERSE | curses.A_BOLD)
    for n, item in enumerate(items[: height - 4]):
        mark = "[x]" if item["done"] else "[ ]"
        attr = curses.color_pair(1) if item["done"] else curses.A_NORMAL
        if n == selected:
            attr |= curses.A_BOLD
            screen.addstr(n + 2, 0, ">")
        screen.addstr(n + 2, 2, f"{mark} {item['text']}", attr)
    if not items:
        screen.addstr(2, 2, "nothing to do yet: press a to add an item", curses.A_DIM)
    help_line = "a add  space toggle  d delete  s save  q quit"
    screen.addstr(height - 2, 0, help_line[: width - 1], curses.color_pair(3))
    if status:
        screen.addstr(height - 1, 0, status[: width - 1],
                      curses.color_pair(2) if error else curses.A_NORMAL)
    screen.refresh()


def ask(screen, prompt):
    height, width = screen.getmaxyx()
    screen.move(height - 1, 0)
    screen.clrtoeol()
    screen.addstr(height - 1, 0, prompt)
    curses.echo()
    curses.curs_set(1)
    text = screen.getstr(height - 1, len(prompt), width - len(prompt) - 1).decode()
    curses.noecho()
    curses.curs_set(0)
    return text.strip()


def main(screen) -> int:
    curses.use_default_colors()
    curses.init_pair(1, curses.COLOR_GREEN, -1)
    curses.init_pair(2, curses.COLOR_RED, -1)
    curses.init_pair(3, curses.COLOR_CYAN, -1)
    curses.curs_set(0)
    screen.keypad(True)
    items, selected, status, error = load(), 0, "", False
    while True:
        draw(screen, items, selected, status, error)
        key = screen.getch()
        status, error = "", False
        if key == ord("a"):
            text = ask(screen, "new item: ")
            if text:
                items.append({"text": text, "done": False})
                selected = len(items) - 1
            else:
                status, error = "an item needs some text", True
        elif key == curses.KEY_UP:
            selected = max(0, selected - 1)
        elif key == curses.KEY_DOWN:
            selected = min(len(items) - 1, selected + 1)
        elif key == ord(" ") and items:
            items[selected]["done"] = not items[selected]["done"]
        elif key == ord("d") and items:
            del items[selected]
            selected = max(0, min(selected, len(items) - 1))
        elif key == ord("s"):
            save(items)
            status = f"saved {len(items)} items to {STORE}"
        elif key == ord("q"):
            save(items)
            return 0
        elif key == ord("Q"):
            return 3
        else:
            status, error = f"unknown key {curses.keyname(key).decode()}", True


if __name__ == "__main__":
    sys.exit(curses.wrapper(main))
