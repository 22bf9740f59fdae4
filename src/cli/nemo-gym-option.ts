import { Option } from 'commander';

/** `--nemo-gym DIR`, one flag for `serve --config` and `collect --split`: the way to run NeMo Gym's own servers instead of gymnast's ports. */
export function nemoGymOption(): Option {
  return new Option(
    '--nemo-gym <dir>',
    "a NeMo Gym checkout: the config's resources servers that gymnast has TypeScript ports of (mcqa, string_match, …) run from it as NeMo Gym runs them (python <entrypoint> in DIR/resources_servers/<name>, with its .venv when set up), not the ports",
  );
}
