import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium, which `.ci/run` installs, or the one CHROMIUM_PATH names. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A browser spec's `skip`: false where Chromium is, else the reason. */
export const skipWithoutChromium: false | string = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;

/** Headless Chromium, without its sandbox (CI runs as root). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** Puts a page's console errors and uncaught exceptions in `problems`, which a spec then expects empty. */
export function recordProblems(page: Page, problems: string[]): void {
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
}

/** A 1280 × 900 page whose problems go to `problems`. */
export async function openPage(browser: Browser, problems: string[]): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  recordProblems(page, problems);
  return page;
}

/** Where a browser spec's screenshots go, made: the folder GYMNAST_VIEWER_SHOTS names, else `dir/shots`. */
export async function screenshotsFolder(dir: string): Promise<string> {
  const shots = process.env.GYMNAST_VIEWER_SHOTS ?? join(dir, 'shots');
  await mkdir(shots, { recursive: true });
  return shots;
}

/** A browser spec's temp folder, removed unless GYMNAST_VIEWER_SHOTS asks to keep what the spec wrote. */
export async function removeSpecFolder(dir: string | undefined): Promise<void> {
  if (dir && !process.env.GYMNAST_VIEWER_SHOTS) await rm(dir, { recursive: true, force: true });
}
