import type { MultiBar, SingleBar } from 'cli-progress';
import type { CollectProgress } from '../collect/collect-run.js';

/** What `gymnast collect` shows on stderr while it runs: where it stands, and notices that must not tear the bar. */
export interface ProgressDisplay {
  update(progress: CollectProgress): void;
  /** `[collect] message` on a line of its own (above the bar on a terminal). */
  notice(message: string): void;
  /** Ends the bar, its redraw timer and its line; a no-op once stopped, or without a bar. */
  stop(): void;
}

/**
 * Progress on `stream`: on a terminal, cli-progress's live bar (done/total, rollouts/min, ETA once it means something, mean
 * reward, failures, prompts too long, retries, and with `workers` the queue's workers alive) redrawn at most 10 times a second, ended when the last
 * rollout is; otherwise a plain line every 10% and at the end, which logs and specs read. cli-progress
 * is imported only for a terminal: a run whose stderr is a file or a pipe does not load it.
 */
export async function progressDisplay(retries: () => number, stream: NodeJS.WriteStream = process.stderr, workers?: () => number): Promise<ProgressDisplay> {
  const status = progressStatus(retries, workers);
  if (!stream.isTTY) return plainLines(status, stream);
  // cli-progress is CommonJS: its exports are the module's default export, the one place both Node and the
  // esbuild bundle put them (the bundle has no named exports for it).
  const { MultiBar } = (await import('cli-progress')).default;
  return liveBar(new MultiBar({ stream, format: '[{bar}] {status}', barsize: 24, barCompleteChar: '#', barIncompleteChar: '.', fps: 10 }), status, stream);
}

type Status = (progress: CollectProgress) => string;

function plainLines(status: Status, stream: NodeJS.WriteStream): ProgressDisplay {
  let lastDecile = -1;
  return {
    update(progress) {
      const line = status(progress);
      const decile = Math.floor((10 * progress.done) / progress.total);
      if (decile === lastDecile && progress.done !== progress.total) return;
      lastDecile = decile;
      stream.write(`[collect] ${line}\n`);
    },
    notice: (message) => void stream.write(`[collect] ${message}\n`),
    stop: () => undefined,
  };
}

/** One bar; a notice while it is live goes through `log`, which cli-progress writes above the bar on its next redraw. */
function liveBar(bars: MultiBar, status: Status, stream: NodeJS.WriteStream): ProgressDisplay {
  let bar: SingleBar | undefined;
  let live = false;
  const stop = () => {
    if (!live) return;
    live = false;
    // update() first: it writes the notices logged since the last redraw, which stop() alone would drop.
    bars.update();
    bars.stop();
  };
  return {
    update(progress) {
      const payload = { status: status(progress) };
      if (bar === undefined) {
        bar = bars.create(progress.total, progress.done, payload);
        live = true;
      } else if (live) {
        bar.update(progress.done, payload);
      }
      if (progress.done === progress.total) stop();
    },
    notice(message) {
      if (live) bars.log(`[collect] ${message}\n`);
      else stream.write(`[collect] ${message}\n`);
    },
    stop,
  };
}

/** The status after each rollout: its rate counts only the rollouts this run ended (not a resumed run's earlier ones). */
function progressStatus(retries: () => number, workers?: () => number): Status {
  const started = Date.now();
  let first: number | undefined;
  return (progress) => {
    first ??= progress.done - 1;
    const elapsedMinutes = Math.max((Date.now() - started) / 60_000, 1e-9);
    const rate = (progress.done - first) / elapsedMinutes;
    const scored = progress.done - progress.failures - progress.promptTooLong;
    const meanReward = scored === 0 ? 'n/a' : (progress.rewardSum / scored).toFixed(3);
    // The first rollouts end while the rest are still in flight: a rate from them promises hours. The
    // ETA shows once a tenth of what this run has to do (at least 2 rollouts) has ended.
    const ended = progress.done - first;
    const settled = rate > 0 && ended >= Math.max(2, (progress.total - first) / 10);
    const eta = settled ? `, ETA ${formatDuration(((progress.total - progress.done) / rate) * 60)}` : '';
    // Named only when there are some: a prompt too long for --max-seq-len is neither scored nor failed.
    const tooLong = progress.promptTooLong > 0 ? `, ${progress.promptTooLong} prompt too long` : '';
    return `${progress.done}/${progress.total} rollouts, ${rate.toFixed(0)}/min${eta}, mean reward ${meanReward}, ${progress.failures} failures${tooLong}, ${retries()} retries${workers ? `, ${workers()} workers alive` : ''}`;
  };
}

function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}
