import type { Browser, Page } from 'playwright-core';
import { ViewerServer, type ViewerServerOptions } from '../../src/servers/viewer/viewer-server.js';
import { launchChromium, openPage, screenshotsFolder } from './headless-chromium.js';

/** A viewer serving runs, indexed, and a headless Chromium page to drive it. */
export interface ViewerInChromium {
  server: ViewerServer;
  browser: Browser;
  page: Page;
  /** Where the spec's screenshots go (see `screenshotsFolder`). */
  shots: string;
}

/** What the viewer's browser specs set up before their cases; nothing is left open if a step fails. */
export async function openViewerInChromium(options: ViewerServerOptions, dir: string, problems: string[]): Promise<ViewerInChromium> {
  const server = await ViewerServer.open(options);
  try {
    await server.start();
    await server.indexed();
    const shots = await screenshotsFolder(dir);
    const browser = await launchChromium();
    try {
      return { server, browser, page: await openPage(browser, problems), shots };
    } catch (error) {
      await browser.close();
      throw error;
    }
  } catch (error) {
    await server.close();
    throw error;
  }
}

/** Closes what `openViewerInChromium` opened, as much of it as a failed `before` left. */
export async function closeViewerInChromium(opened: Partial<Pick<ViewerInChromium, 'browser' | 'server'>>): Promise<void> {
  await opened.browser?.close();
  await opened.server?.close();
}
