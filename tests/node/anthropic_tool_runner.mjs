// The Anthropic Node SDK's toolRunner with its defaults (message threads on), pointed at
// scenarist llm: node anthropic_tool_runner.mjs BASE_URL PROMPT [disable_parallel]
// Prints {"text": final text, "asked": [cities the tool was run with], "id": final message id}.
import Anthropic from '@anthropic-ai/sdk';
import { betaTool } from '@anthropic-ai/sdk/helpers/beta/json-schema';

const [baseURL, prompt, disableParallel] = process.argv.slice(2);
const client = new Anthropic({ baseURL, apiKey: 'test', maxRetries: 0 });
const asked = [];
const getWeather = betaTool({
  name: 'get_weather',
  description: 'The weather in a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  run: async ({ city }) => {
    asked.push(city);
    return city === 'Paris' ? 'sunny in Paris' : `rain in ${city}`;
  },
});
const params = {
  model: 'mock-model',
  max_tokens: 256,
  system: 'Answer about the weather.',
  messages: [{ role: 'user', content: prompt }],
  tools: [getWeather],
};
if (disableParallel === 'disable_parallel') {
  params.tool_choice = { type: 'auto', disable_parallel_tool_use: true };
}
const final = await client.beta.messages.toolRunner(params);
const text = final.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
console.log(JSON.stringify({ text, asked, id: final.id }));
