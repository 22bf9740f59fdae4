import { stringify } from 'yaml';
import type { ListenOptions } from '../http-server/http-server-core.js';
import { redactSecrets } from '../../util/redact-secrets.js';
import { JsonServer } from '../http-server/json-server.js';

/** One running server as the head server lists it. */
export interface ServerInstanceInfo {
  name: string;
  type: string;
  impl: string;
  url: string;
  /** The process id of a server gymnast spawned (a `command:` server). */
  pid?: number;
}

export interface HeadServerOptions extends ListenOptions {
  /** The servers now running. */
  instances: () => readonly ServerInstanceInfo[];
  /** The resolved config, actual hosts and ports filled in. */
  config: () => Record<string, unknown>;
  /** When set, every request must carry `Authorization: Bearer <apiKey>` (401 otherwise). */
  apiKey?: string;
}

/**
 * NeMo Gym's head server: `GET /` (liveness), `GET /server_instances`, and `GET /global_config_dict_yaml`,
 * the resolved config as YAML inside a JSON string, as `ServerClient.load_from_global_config` reads it.
 * Its secrets (a `vllm_model`'s `api_key`, `hf_token`, credentials in URLs) are masked: NeMo Gym's
 * clients read only where the servers listen from it, and anyone who reaches the port may read it.
 * The servers that need the real values get them elsewhere (in-process, or `NEMO_GYM_CONFIG_DICT`).
 */
export function headServer(options: HeadServerOptions): JsonServer {
  return new JsonServer({
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    routes: {
      'GET /': () => ({ status: 200, body: { status: 'ok' } }),
      'GET /server_instances': () => ({ status: 200, body: options.instances() }),
      'GET /global_config_dict_yaml': () => ({ status: 200, body: stringify(redactSecrets(options.config())) }),
    },
  });
}
