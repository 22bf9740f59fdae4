import { spawn } from 'node:child_process';

/** The platform's "open this URL" command. */
function opener(url: string): { command: string; args: string[] } {
  if (process.platform === 'darwin') return { command: 'open', args: [url] };
  // `start` is a cmd built-in; its first quoted argument is a window title, hence the empty one.
  if (process.platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url] };
  return { command: 'xdg-open', args: [url] };
}

/**
 * Opens `url` in the default browser, detached. A machine without one (a server over SSH) only gets a
 * notice through `onFailure`: the URL is printed anyway.
 */
export function openBrowser(url: string, onFailure: (reason: string) => void): void {
  const { command, args } = opener(url);
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    child.once('error', (error) => onFailure(`${command}: ${error.message}`));
    child.once('exit', (code) => {
      if (code !== 0 && code !== null) onFailure(`${command} exited with ${code}`);
    });
    child.unref();
  } catch (error) {
    onFailure(`${command}: ${(error as Error).message}`);
  }
}
