/**
 * How the router places requests on replicas (`--routing`):
 * - `sticky` (default): an episode's requests stay on the replica its first one went to, whose prefix
 *   cache holds the conversation; a new episode goes to the replica with the fewest requests in flight,
 *   or to the one an episode with the same first prompt went to (the other samples of a GRPO group), so
 *   the prompt is prefilled once.
 * - `least-loaded`: every request to the replica with the fewest in flight, whatever episode it is of
 *   (no affinity: NeMo RL's router places requests this way).
 * - `round-robin`: every request to the next replica in turn.
 */
export const routingPolicies = ['sticky', 'least-loaded', 'round-robin'] as const;
export type Routing = (typeof routingPolicies)[number];
