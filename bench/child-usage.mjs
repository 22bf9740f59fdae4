// Preloaded into a benchmarked child (`node --import ./bench/child-usage.mjs …`): when the process
// exits, writes its own getrusage (process.resourceUsage: user and system CPU of every thread, peak
// RSS) as JSON to the file named by GYMNAST_BENCH_USAGE_FILE. Plain JavaScript, so the child needs no
// tsx: the CLI is measured as it runs from dist/.
import { writeFileSync } from 'node:fs';

const file = process.env.GYMNAST_BENCH_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      file,
      JSON.stringify({
        cpu_s: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
        user_s: usage.userCPUTime / 1e6,
        system_s: usage.systemCPUTime / 1e6,
        peak_rss_mb: usage.maxRSS / 1024,
      }),
    );
  });
}
