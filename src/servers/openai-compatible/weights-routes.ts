import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { hasKind } from '../../core/errors/has-kind.js';
import { EmbeddedPolicy } from '../../policy/embedded/embedded-policy.js';
import { openAiErrorBody } from '../http-server/openai-error-body.js';
import { RequestRejectedError } from '../http-server/request-rejected-error.js';
import { parseBody } from './request-checks.js';
import type { Route } from './route.js';

/** How long an update waits for the generations decoding on the old weights by default. */
export const DEFAULT_UPDATE_DEADLINE_MS = 30_000;

/** `POST /update_weights`: the checkpoint folder to load, as `gymnast train` writes it (`EmbeddedPolicy.load` reads it). */
export const UpdateWeightsRequest = z.object({ checkpoint: z.string().min(1) }).strict();

/**
 * The routes that hand a served embedded policy new weights (the refit a trainer does between steps)
 * and report which version it samples with. Generations already decoding finish on the old weights:
 * the update waits for them up to `deadlineMs`, and past it answers 503 with the weights unchanged.
 */
export function weightsRoutes(policy: EmbeddedPolicy, deadlineMs = DEFAULT_UPDATE_DEADLINE_MS): Record<string, Route> {
  return {
    'GET /policy_version': () => ({ status: 200, body: { policy_version: policy.version } }),
    'POST /update_weights': async (_context, body) => {
      const { checkpoint } = parseBody(UpdateWeightsRequest, body);
      const loaded = await loadCheckpoint(checkpoint);
      if (loaded.model.params.length !== policy.model.params.length || JSON.stringify(loaded.model.config) !== JSON.stringify(policy.model.config))
        throw new RequestRejectedError(400, `${checkpoint} holds a model of another shape than the one served`, { param: 'checkpoint' });
      const update = await policy.updateWeightsWhenIdle(loaded.model.params, deadlineMs);
      if (update.updated) return { status: 200, body: { policy_version: update.version } };
      return {
        status: 503,
        body: openAiErrorBody(`${update.decoding} generations were still decoding after ${deadlineMs} ms: the weights were not changed`, {
          type: 'server_error',
          code: 'update_deadline',
        }),
      };
    },
  };
}

async function loadCheckpoint(folder: string): Promise<EmbeddedPolicy> {
  const found = await stat(folder).catch(() => undefined);
  if (!found?.isDirectory()) throw new RequestRejectedError(400, `checkpoint: ${folder} is not a folder`, { param: 'checkpoint' });
  try {
    return await EmbeddedPolicy.load(folder);
  } catch (error) {
    // A folder without a readable model.json or model.bin, or weights that do not match their sha256.
    if (hasKind(error, 'config') || (error instanceof Error && 'code' in error) || error instanceof SyntaxError || error instanceof z.ZodError)
      throw new RequestRejectedError(400, `checkpoint: ${folder} is not a checkpoint EmbeddedPolicy.load reads: ${error.message}`, { param: 'checkpoint' });
    throw error;
  }
}
