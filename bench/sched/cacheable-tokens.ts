import type { PolicyResultInput } from '../../src/core/policy-result.js';
import type { Policy, PolicyRequest } from '../../src/policy/policy.js';
import { blockHash, ROOT_BLOCK_HASH } from '../../src/servers/sim/block-hash.js';
import { withGenerate } from './with-generate.js';

/**
 * Counts the cacheable prompt tokens of every request a policy sends: the longest prefix of its prompt,
 * in whole KV blocks (as vLLM caches them), that an earlier request computed, never the prompt's last
 * token (vLLM computes at least that one). A request computes its prompt's blocks as it is admitted and
 * its reply's once it ends (but the reply's last token, whose KV is never computed). What one prefix
 * cache of unbounded size for the whole fleet would hit: the measure routing is held to.
 */
export class CacheableTokens {
  /** Cacheable prompt tokens over every request. */
  total = 0;
  /** Prompt tokens over every request. */
  prompts = 0;
  /** The content hashes of every block computed so far (the sim's own chain hash). */
  readonly #computed = new Set<number>();

  constructor(readonly blockSize: number) {}

  /** `policy`, counting what each of its requests could have found cached. */
  wrap(policy: Policy): Policy {
    const generate = async (request: PolicyRequest, signal: AbortSignal): Promise<PolicyResultInput> => {
      const prompt = request.prompt_token_ids;
      this.#count(prompt);
      this.#compute(prompt, Math.floor(prompt.length / this.blockSize));
      const result = await policy.generate(request, signal);
      const sequence = [...prompt, ...(result.token_ids ?? [])];
      this.#compute(sequence, Math.floor((sequence.length - 1) / this.blockSize));
      return result;
    };
    return withGenerate(policy, generate);
  }

  #count(prompt: readonly number[]): void {
    const size = this.blockSize;
    let hash = ROOT_BLOCK_HASH;
    let blocks = 0;
    for (const last = Math.floor((prompt.length - 1) / size); blocks < last; blocks++) {
      hash = blockHash(hash, prompt, blocks * size, (blocks + 1) * size);
      if (!this.#computed.has(hash)) break;
    }
    this.total += blocks * size;
    this.prompts += prompt.length;
  }

  #compute(ids: readonly number[], blocks: number): void {
    let hash = ROOT_BLOCK_HASH;
    for (let block = 0; block < blocks; block++) {
      hash = blockHash(hash, ids, block * this.blockSize, (block + 1) * this.blockSize);
      this.#computed.add(hash);
    }
  }
}
