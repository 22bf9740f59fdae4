import { exampleServers } from '../src/servers/resources/examples/example-servers.js';

/** NeMo Gym's session-state example, ported, in its own process so a benchmark measures the client alone. Prints its URL. */
const server = exampleServers.example_session_state_mgmt!.create().createServer();
process.stdout.write(`${await server.start()}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
