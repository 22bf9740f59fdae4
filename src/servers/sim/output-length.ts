import type { SeededRandom } from '../../util/seeded-random.js';
import type { SimProfile } from './sim-profile.js';

/**
 * A reply's length in tokens (end of sequence included), drawn from the profile's log-normal: the
 * median times e^(sigma · z) for a standard normal z, so lengths are long-tailed (sigma 1 puts one reply
 * in a hundred above ten times the median). At least 1.
 */
export function sampleOutputLength(distribution: SimProfile['outputLength'], random: SeededRandom): number {
  // Box–Muller; 1 - next() is in (0, 1], so the logarithm is finite.
  const z = Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
  return Math.max(1, Math.round(distribution.median * Math.exp(distribution.sigma * z)));
}
