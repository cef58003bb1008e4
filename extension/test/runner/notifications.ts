/**
 * Every notification the workbench shows, seen from the page: a toast, or a row of the
 * notification center. A test run must not show a user an error it did not notice, so the
 * runners fail on any error-severity one (the extension's own, the language client's for a
 * server's window/showMessage, or the workbench's).
 */
import type { Page } from 'playwright-core';

export type Severity = 'error' | 'warning' | 'info';

export interface Notice {
  severity: Severity;
  message: string;
  /** Milliseconds since the watch began. */
  at: number;
}

const REPORT = 'exportlensNotice';

/**
 * Runs in the page before the workbench loads. The workbench renders each notification as a
 * `.notification-list-item` (toast or center row; the center's list reuses row elements), its
 * severity as the icon's codicon class. Rows are scanned after every DOM change, so a toast
 * that hides again is still seen.
 */
function pageWatcher(report: string): void {
  const seen = new WeakMap<Element, string>();
  const severityOf = (icon: Element | null): string | undefined => {
    const name = icon?.className ?? '';
    return ['error', 'warning', 'info'].find((s) => name.split(' ').includes(`codicon-${s}`));
  };
  const scan = (): void => {
    for (const item of Array.from(document.querySelectorAll('.notification-list-item'))) {
      const message = item.querySelector('.notification-list-item-message')?.textContent.trim() ?? '';
      const severity = severityOf(item.querySelector('.notification-list-item-icon'));
      const key = `${severity ?? '?'}|${message}`;
      if (message === '' || seen.get(item) === key) {
        continue;
      }
      seen.set(item, key);
      const send = (window as unknown as Record<string, (s: string, m: string) => void>)[report];
      send?.(severity ?? 'unknown', message);
    }
  };
  let queued = false;
  const observer = new MutationObserver(() => {
    if (!queued) {
      queued = true;
      queueMicrotask(() => {
        queued = false;
        scan();
      });
    }
  });
  // the document itself: its <html> may not exist yet when this runs
  observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['class'] });
}

export class NotificationWatch {
  private readonly notices: Notice[] = [];
  private readonly started = Date.now();
  private readonly keys = new Set<string>();

  /** Call before the page loads the workbench. */
  async attach(page: Page): Promise<void> {
    await page.exposeFunction(REPORT, (severity: string, message: string) => this.add(severity, message));
    await page.addInitScript(pageWatcher, REPORT);
  }

  private add(severity: string, message: string): void {
    // a row re-rendered (center opened, toast moved) is the same notification
    const key = `${severity}|${message}`;
    if (this.keys.has(key)) {
      return;
    }
    this.keys.add(key);
    const known: Severity | undefined = severity === 'error' || severity === 'warning' || severity === 'info' ? severity : undefined;
    // An unknown icon class counts as an error: a notification we cannot classify must be looked at.
    this.notices.push({ severity: known ?? 'error', message: known === undefined ? `(icon unknown) ${message}` : message, at: Date.now() - this.started });
  }

  /** How many notices so far: pass it to `errorsSince` to get only the later ones. */
  get mark(): number {
    return this.notices.length;
  }

  all(): readonly Notice[] {
    return this.notices;
  }

  errorsSince(mark = 0, allowed: (message: string) => boolean = () => false): Notice[] {
    return this.notices.slice(mark).filter((n) => n.severity === 'error' && !allowed(n.message));
  }
}

/** "error notification(s) shown: «…»; «…»" */
export function describe(errors: readonly Notice[]): string {
  return `${errors.length} error notification(s) shown: ${errors.map((n) => `«${n.message}» (at ${(n.at / 1000).toFixed(1)} s)`).join('; ')}`;
}

/**
 * Opens the notification center (which keeps every notification not dismissed, toasts that
 * hid included) so the watch sees its rows, screenshots it, then closes it again.
 */
export async function openNotificationCenter(page: Page, screenshot: string): Promise<number> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill('>Notifications: Show Notifications');
  const row = page.locator('.quick-input-list .monaco-list-row[aria-label*="Show Notifications"]').first();
  await row.waitFor({ state: 'visible', timeout: 20000 });
  await page.keyboard.press('Enter');
  const center = page.locator('.notifications-center.visible');
  await center.waitFor({ state: 'visible', timeout: 10000 });
  await page.waitForTimeout(300); // the list renders its rows
  const rows = await center.locator('.notification-list-item').count();
  await page.screenshot({ path: screenshot });
  await page.keyboard.press('Escape');
  return rows;
}
