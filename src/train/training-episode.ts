import type { SamplingParams } from '../core/sampling-params.js';
import type { EpisodeOptions } from '../engine/episode-options.js';
import { arithmeticEnvironment } from '../environments/arithmetic.js';
import type { EmbeddedPolicy } from '../policy/embedded/embedded-policy.js';
import type { ConversationRenderer } from '../tokens/conversation-renderer.js';

/** How `gymnast train` runs an episode of a training or held-out task: the same in the trainer's process and in a sampler process. */
export function trainingEpisode(policy: EmbeddedPolicy, renderer: ConversationRenderer, sampling: SamplingParams): EpisodeOptions {
  return { policy, environment: arithmeticEnvironment(), renderer, maxTurns: 4, maxSeqLen: policy.maxModelLen, sampling };
}
