import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** axe-core's browser bundle (devDependency), evaluated in the page: its Content-Security-Policy refuses script tags. */
export const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The page's serious and critical axe-core violations, each as `rule: first offending element`. */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(`${AXE_SOURCE}\n;0`);
  return page.evaluate(async () => {
    const g = globalThis as unknown as { axe: { run(context: unknown, options: object): Promise<any> }; document: unknown };
    const result = await g.axe.run(g.document, { resultTypes: ['violations'] });
    return (result.violations as Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>)
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes[0]?.target.join(' ') ?? ''}`);
  });
}
