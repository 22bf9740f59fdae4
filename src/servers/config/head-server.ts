import { stringify } from 'yaml';
import type { ListenOptions } from '../http/http-server-core.js';
import { JsonServer } from '../http/json-server.js';

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
}

/**
 * NeMo Gym's head server: `GET /` (liveness), `GET /server_instances`, and `GET /global_config_dict_yaml`,
 * the resolved config as YAML inside a JSON string, as `ServerClient.load_from_global_config` reads it.
 */
export function headServer(options: HeadServerOptions): JsonServer {
  return new JsonServer({
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
    routes: {
      'GET /': () => ({ status: 200, body: { status: 'ok' } }),
      'GET /server_instances': () => ({ status: 200, body: options.instances() }),
      'GET /global_config_dict_yaml': () => ({ status: 200, body: stringify(options.config()) }),
    },
  });
}
