import { builtinEnvironments, findEnvironment } from '../../environments/registry.js';
import type { JsonServer } from '../http-server/json-server.js';
import type { ListenOptions } from '../http-server/http-server-core.js';
import { environmentResourcesServer } from './environment-resources-server.js';
import { exampleServers } from './examples/example-servers.js';

/** Every name `resourcesServerFor` serves: the ported NeMo Gym examples, then gymnast's built-in environments. */
export function servableResourcesNames(): string[] {
  return [...Object.keys(exampleServers), ...builtinEnvironments.map((entry) => entry.name)];
}

/** Whether `name` is a NeMo Gym resources server gymnast has a TypeScript port of (running the port is a choice the user sees). */
export function isNemoGymPort(name: string): boolean {
  return Object.hasOwn(exampleServers, name);
}

/** A ported NeMo Gym example by its NeMo Gym name, else a built-in environment through the generic mapping; undefined for neither. */
export function resourcesServerFor(name: string, listen: ListenOptions & { apiKey?: string }): JsonServer | undefined {
  const example = exampleServers[name];
  if (example) return example.create().createServer(listen);
  const entry = findEnvironment(name);
  return entry ? environmentResourcesServer(entry.create(), listen) : undefined;
}
