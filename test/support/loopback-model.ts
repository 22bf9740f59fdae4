import { EpisodeTask, SamplingParams } from '../../src/core/index.js';
import type { EpisodeOptions } from '../../src/engine/index.js';
import { ScriptedEnvironment } from '../../src/testing/index.js';
import { InferenceServer, type InferenceServerOptions, type Responder } from '../../src/testing/index.js';
import { TemplateRenderer } from '../../src/tokens/index.js';
import type { Policy } from '../../src/policy/index.js';
import { after, before } from 'node:test';
import { qwen3Template, qwen3Tokenizer } from './qwen3.js';

/** A tool-using model: calls `add` first, answers once it has seen a tool response. */
export const toolUser: Responder = ({ text }) =>
  text.lastIndexOf('<tool_response>') > text.lastIndexOf('<|im_start|>user\nWhat')
    ? 'The answer is 4.'
    : '<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 2}}\n</tool_call>';

/** Starts `count` test servers with the real Qwen3 tokenizer and template. */
export async function startServers(count: number, options: Partial<InferenceServerOptions> = {}): Promise<InferenceServer[]> {
  const tokenizer = await qwen3Tokenizer();
  const template = await qwen3Template();
  const servers = Array.from({ length: count }, () => new InferenceServer({ tokenizer, template, respond: toolUser, ...options }));
  await Promise.all(servers.map((server) => server.start()));
  return servers;
}

/**
 * One test server for the suite it is called in: started before its tests, closed after them. By
 * default it answers each prompt with its seed mod 100 (an arithmetic answer right for some rows).
 * The getter gives the started server.
 */
export function suiteServer(respond: Responder = ({ seed }) => `${seed % 100}`): () => InferenceServer {
  let server: InferenceServer | undefined;
  before(async () => {
    server = (await startServers(1, { respond }))[0]!;
  });
  after(() => server?.close());
  return () => server!;
}

/** An environment that answers tool calls with "4" and rewards the final answer. */
export const toolEnvironment = () =>
  new ScriptedEnvironment({
    step: ({ messages }) =>
      messages.at(-1)!.content.includes('<tool_call>')
        ? { observation: [{ role: 'tool', content: '4' }], reward: 0, terminated: false }
        : { observation: [{ role: 'environment', content: 'correct' }], reward: 1, terminated: true },
  });

export async function toolEpisodeOptions(policy: Policy, overrides: Partial<EpisodeOptions> = {}): Promise<EpisodeOptions> {
  return {
    policy,
    environment: toolEnvironment(),
    renderer: new TemplateRenderer(await qwen3Tokenizer(), await qwen3Template(), { drift: 'strict' }),
    maxTurns: 4,
    maxSeqLen: 2048,
    sampling: SamplingParams.parse({ max_tokens: 64, seed: 3 }),
    ...overrides,
  };
}

export const addTask = (index: number) =>
  EpisodeTask.parse({
    id: `add-${index}`,
    index,
    messages: [{ role: 'user', content: 'What is 2+2? Use the add tool.' }],
    tools: [
      {
        type: 'function',
        function: { name: 'add', description: 'Add two numbers', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
      },
    ],
  });
