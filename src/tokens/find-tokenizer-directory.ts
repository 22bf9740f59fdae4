import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** The folder found, or every place looked at. */
export type TokenizerSearch = { directory: string; looked?: undefined } | { directory?: undefined; looked: string[] };

/**
 * The folder with a model's `tokenizer.json` and `tokenizer_config.json`, found from its name as vLLM
 * and transformers find a model: the name itself when it is such a folder (vLLM lists the path it
 * loaded as `root`), else the snapshot of the Hugging Face hub cache (`models--Org--Name`, the one
 * `refs/main` names, or the only one). Nothing is downloaded: a run must not fetch what decides its
 * token ids.
 */
export function findTokenizerDirectory(name: string, env: Readonly<Record<string, string | undefined>> = process.env): TokenizerSearch {
  if (hasTokenizer(name)) return { directory: name };
  if (!isRepoId(name)) return { looked: [name] };
  const repo = join(hubCache(env), `models--${name.replaceAll('/', '--')}`);
  const snapshot = cachedSnapshot(repo);
  return snapshot !== undefined && hasTokenizer(snapshot) ? { directory: snapshot } : { looked: [name, snapshot ?? repo] };
}

/** `Org/Name` or `Name`: what the hub names a model by (a path is not). */
function isRepoId(name: string): boolean {
  return !isAbsolute(name) && !name.startsWith('.') && /^[\w.-]+(\/[\w.-]+)?$/.test(name);
}

/** huggingface_hub's order: `HF_HUB_CACHE`, then `$HF_HOME/hub`, then `$XDG_CACHE_HOME/huggingface/hub`, then `~/.cache/huggingface/hub`. */
function hubCache(env: Readonly<Record<string, string | undefined>>): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HF_HOME) return join(env.HF_HOME, 'hub');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'huggingface', 'hub');
}

function cachedSnapshot(repo: string): string | undefined {
  const snapshots = join(repo, 'snapshots');
  const main = join(repo, 'refs', 'main');
  if (existsSync(main)) return join(snapshots, readFileSync(main, 'utf8').trim());
  const found = existsSync(snapshots) ? readdirSync(snapshots) : [];
  return found.length === 1 ? join(snapshots, found[0]!) : undefined;
}

function hasTokenizer(directory: string): boolean {
  return ['tokenizer.json', 'tokenizer_config.json'].every((file) => isFile(join(directory, file)));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
