import { Command } from 'commander';
import { runSamplerProcess } from '../train/sampler-process.js';

/** `gymnast train-sampler`: not for users (hidden from --help); the sampler process `gymnast train --async` starts, speaking over IPC. */
export function trainSamplerCommand(): Command {
  return new Command('train-sampler').description('the sampler process of gymnast train --async (started by it, over IPC)').action(runSamplerProcess);
}
