import { z } from 'zod';
import { ConfigFileError } from '../../core/errors/config-file-error.js';
import { GymnastError } from '../../core/errors/gymnast-error.js';
import { JsonClient } from '../../http-client/json-client.js';
import { serverUrl } from '../../http-client/server-url.js';
import { findTokenizerDirectory } from '../../tokens/find-tokenizer-directory.js';
import { redactUrls } from '../../util/redact-urls.js';
import type { ServedModelPlan } from './plan-servers.js';

/** vLLM's `/v1/models`: each model's served name and `root`, the path or hub name it was loaded from. */
const ModelList = z.object({ data: z.array(z.looseObject({ id: z.string(), root: z.string().nullish() })).min(1) });

/** A server that lists nothing within this long is not one to wait for: the policy's own lookup says more. */
const LOOKUP_TIMEOUT_MS = 30_000;

export interface ServedModelTokenizerOptions {
  /** The config file, named in the error. */
  file: string;
  /** The agent that samples the model with exact tokens, named in the error. */
  agent: string;
  /** Where the Hugging Face cache is (`HF_HUB_CACHE`, `HF_HOME`, `XDG_CACHE_HOME`). */
  env?: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
}

/**
 * The tokenizer folder of a `vllm_model` from NeMo Gym's own keys: gymnast's `tokenizer` when the config
 * sets it; else the `model` name, as a folder or in the Hugging Face cache; else what the server's
 * `/v1/models` says it loaded (`root`, then the served name), asked only then. Found nowhere, it is a
 * `ConfigFileError` naming the `tokenizer` key to set and every place looked at.
 */
export async function servedModelTokenizer(plan: ServedModelPlan, options: ServedModelTokenizerOptions): Promise<string> {
  if (plan.tokenizer !== undefined) return plan.tokenizer;
  const looked: string[] = [];
  const found = (name: string) => {
    const search = findTokenizerDirectory(name, options.env);
    looked.push(...(search.looked ?? []));
    return search.directory;
  };
  const named = plan.model === undefined ? undefined : found(plan.model);
  if (named !== undefined) return named;
  const listed = await listedModel(plan, options.signal);
  const fromServer = 'names' in listed ? listed.names.map(found).find((directory) => directory !== undefined) : undefined;
  if (fromServer !== undefined) return fromServer;
  const server =
    'names' in listed ? `/v1/models lists ${listed.names.map((name) => `"${name}"`).join(' and ')}` : `/v1/models could not be read (${listed.problem})`;
  throw new ConfigFileError(options.file, [
    {
      path: `${plan.instance.path}.tokenizer`,
      expected: `missing: agent "${options.agent}" samples this model with exact tokens and needs its tokenizer.json and tokenizer_config.json, found from neither model ${plan.model === undefined ? '(not set)' : `"${plan.model}"`} nor the server (${server}): looked in ${[...new Set(looked)].join(', ') || 'no folder'}; set it to the tokenizer's folder`,
    },
  ]);
}

/** The served model's `root` and name (the entry `model` names, else the first), or why the server could not say. */
async function listedModel(plan: ServedModelPlan, signal: AbortSignal | undefined): Promise<{ names: string[] } | { problem: string }> {
  const client = new JsonClient();
  const problems: string[] = [];
  try {
    for (const baseUrl of plan.baseUrls) {
      try {
        const list = await client.request({
          method: 'GET',
          baseUrl: serverUrl(baseUrl),
          path: '/v1/models',
          headers: plan.apiKey === undefined ? {} : { authorization: `Bearer ${plan.apiKey}` },
          schema: ModelList,
          timeoutMs: LOOKUP_TIMEOUT_MS,
          ...(signal ? { signal } : {}),
        });
        const entry = list.data.find((model) => model.id === plan.model) ?? list.data[0]!;
        return { names: [...new Set([entry.root, entry.id].filter((name): name is string => typeof name === 'string' && name !== ''))] };
      } catch (error) {
        if (!GymnastError.isInstance(error) || signal?.aborted) throw error;
        problems.push(redactUrls(error.message));
      }
    }
    return { problem: problems.join('; ') };
  } finally {
    await client.close();
  }
}
