import { EnvironmentError } from './environment-error.js';

/** A step's named reward components do not add up to its reward. */
export class RewardComponentsError extends EnvironmentError {
  override readonly kind = 'reward-components';
  readonly reward: number;
  readonly components: Readonly<Record<string, number>>;

  constructor(environment: string, reward: number, components: Record<string, number>) {
    const sum = Object.values(components).reduce((total, value) => total + value, 0);
    super(environment, `reward components ${JSON.stringify(components)} sum to ${sum}, but the step's reward is ${reward}`);
    this.reward = reward;
    this.components = components;
  }
}
