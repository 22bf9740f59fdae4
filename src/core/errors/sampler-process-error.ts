import { GymnastError } from './gymnast-error.js';

/** The sampler process of `gymnast train --async` failed or exited before the run was over. */
export class SamplerProcessError extends GymnastError {
  readonly kind = 'sampler-process';
}
