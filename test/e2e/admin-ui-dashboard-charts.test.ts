import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { signInWithApi, useBrowser, useUiKernel } from '../helpers/browser.js';
import { fixturePlugin, responseCookie } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

const PASSWORD = 'correct horse battery';

/** Whether the chart's canvas has pixels in the colour of the CSS variable (the series line, drawn in the theme's colour). */
function drawnInColour(page: Page, chart: string, variable: string): Promise<boolean> {
  return page.evaluate(
    ([selector, name]) => {
      const d = (globalThis as any).document;
      const box = d.querySelector(selector);
      const canvas = box?.querySelector('canvas');
      if (!canvas) return false;
      const probe = d.createElement('span');
      probe.style.color = `var(${name})`;
      box.append(probe);
      const [r, g, b] = (globalThis as any).getComputedStyle(probe).color.match(/\d+/g).map(Number);
      probe.remove();
      const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 0; i < data.length; i += 4)
        if (Math.abs(data[i] - r) < 8 && Math.abs(data[i + 1] - g) < 8 && Math.abs(data[i + 2] - b) < 8 && data[i + 3] > 200) return true;
      return false;
    },
    [`[data-chart="${chart}"]`, variable],
  );
}

for (const variant of DB_VARIANTS) {
  describe(`admin UI: dashboard charts over time in the browser (${variant.name})`, function () {
    this.timeout(90000);
    const b = useBrowser();
    const t = useUiKernel(
      { db: variant.name, plugins: [fixturePlugin('test-echo')] },
      {
        variant,
        users: [{ email: 'ada@example.com', password: PASSWORD, role: 'admin', username: 'Ada' }],
      },
    );

    it('the Activity chart comes first and shows the requests and errors just made; Content and media shows the new entries', async function () {
      const { page, context } = b;
      const cookie = responseCookie(
        await t.request('/api/user/login', { method: 'POST', json: { email: 'ada@example.com', password: PASSWORD } }),
      )!;
      const headers = { cookie };
      for (let i = 0; i < 5; i++) expect((await t.request('/api/dashboard/health', { headers })).status).to.equal(200);
      expect((await t.request('/api/collections/no-such-thing', { headers })).status).to.equal(404);
      expect((await t.request('/api/open/probe?fail=yes')).status).to.equal(500);
      await t.request('/api/collections', {
        method: 'POST',
        headers,
        json: { name: 'chartnotes', fields: [{ name: 'title', type: 'text' }] },
      });
      for (const title of ['One', 'Two', 'Three'])
        expect((await t.request('/api/collections/chartnotes', { method: 'POST', headers, json: { title } })).status).to.equal(201);

      await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
      await page.goto(`${t.url}/admin/`);
      const grid = page.getByRole('list', { name: 'Widgets' });
      await grid.locator('[data-widget="activity"]').waitFor();
      const first = await page.locator('[data-widget]').first().getAttribute('data-widget');
      expect(first, 'a fresh dashboard starts with Activity').to.equal('activity');

      // The chart is one image with its figures in words; the canvas is drawn in the theme's chart colour.
      const chart = page.locator('[data-chart="activity"][role="img"]');
      await page.waitForFunction(() =>
        /API requests per minute/.test(
          (globalThis as any).document.querySelector('[data-chart="activity"]')?.getAttribute('aria-label') ?? '',
        ),
      );
      const label = (await chart.getAttribute('aria-label'))!;
      const requests = Number(/API requests per minute, last hour: (\d+) in all, peak (\d+)\./.exec(label)?.[1]);
      expect(requests, label).to.be.at.least(12); // 2 sign-ins, 5 health reads, the 404, the 500, the collection and 3 entries
      expect(label).to.contain('Server errors (5xx) per minute: 1 in all, peak 1.');
      expect(label).to.match(/Client errors \(4xx\) per minute: [1-9]\d* in all/);
      await chart.locator('canvas').waitFor();
      expect(await drawnInColour(page, 'activity', '--chart-1'), 'the requests line in --chart-1').to.equal(true);
      const legend = chart.locator('.u-legend');
      for (const name of ['API requests', 'Server errors (5xx)', 'Client errors (4xx)'])
        await legend.getByText(name, { exact: true }).waitFor();
      expect(await page.locator('[data-chart-empty="activity"]').count()).to.equal(0);
      // The widget's own element says it in words.
      await page.locator('cms-widget-activity .cms-activity-words').waitFor();
      expect(await page.locator('cms-widget-activity').textContent()).to.match(
        /\d+ API requests in the last hour, peak \d+ a minute; 1 server error/,
      );

      // The range switch asks for 24 hours in 15-minute buckets.
      await page.getByRole('button', { name: 'Show the last 24 hours' }).click();
      await page.waitForFunction(() =>
        /per 15 minutes, last 24 hours/.test(
          (globalThis as any).document.querySelector('[data-chart="activity"]')?.getAttribute('aria-label') ?? '',
        ),
      );
      expect(await page.getByRole('button', { name: 'Show the last 24 hours' }).getAttribute('aria-pressed')).to.equal('true');

      // Content and media: added from the picker, the three entries and the sign-ins per day.
      await page.getByRole('button', { name: 'Add widget' }).click();
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/dashboard/layout') && r.request().method() === 'PUT' && r.ok()),
        page.getByRole('region', { name: 'Available widgets' }).getByRole('button', { name: 'Add Content and media' }).click(),
      ]);
      const content = page.locator('[data-chart="content-media-activity"][role="img"]');
      await page.waitForFunction(() =>
        /Entries created per day/.test(
          (globalThis as any).document.querySelector('[data-chart="content-media-activity"]')?.getAttribute('aria-label') ?? '',
        ),
      );
      const contentLabel = (await content.getAttribute('aria-label'))!;
      expect(contentLabel).to.contain('Entries created per day, last 30 days: 3 in all, peak 3.');
      expect(contentLabel).to.match(/Sign-ins per day: [2-9] in all/);
      await content.locator('canvas').waitFor();
      expect(await page.locator('cms-widget-content-media-activity').textContent()).to.contain('Last 30 days: 3 entries created');
    });

    it('the time labels under a chart never run into each other, in a narrow or wide card and every range', async function () {
      const { page, context } = b;
      // Records the text uPlot draws on its canvas (x, y, width, alignment): the time axis is canvas text.
      await page.addInitScript(() => {
        const g = globalThis as any;
        g.drawnText = [];
        const proto = g.CanvasRenderingContext2D.prototype;
        const fillText = proto.fillText;
        proto.fillText = function (this: any, text: string, x: number, y: number, ...rest: unknown[]) {
          const m = this.getTransform();
          g.drawnText.push({
            text: String(text),
            x: x * m.a + m.e,
            y: y * m.d + m.f,
            w: this.measureText(String(text)).width * m.a,
            align: this.textAlign,
            canvas: this.canvas,
          });
          return fillText.call(this, text, x, y, ...rest);
        };
      });
      await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
      const overlaps = () =>
        page.evaluate(() => {
          const g = globalThis as any;
          const canvas = g.document.querySelector('[data-chart="activity"] canvas');
          // The last drawing of the x axis: labels on the lowest baseline(s) of the current canvas.
          const mine = (g.drawnText as any[]).filter((d) => d.canvas === canvas && /\d/.test(d.text));
          const rows = new Map<number, any[]>();
          for (const d of mine) rows.set(Math.round(d.y), [...(rows.get(Math.round(d.y)) ?? []), d]);
          const bottom = [...rows.keys()].sort((a, b) => b - a).slice(0, 2);
          const problems: string[] = [];
          let labels = 0;
          for (const y of bottom) {
            // Only the latest draw counts: keep the last occurrence of each position.
            const byX = new Map<number, any>();
            for (const d of rows.get(y)!) byX.set(Math.round(d.x), d);
            const boxes = [...byX.values()]
              .map((d) => {
                const left = d.align === 'center' ? d.x - d.w / 2 : d.align === 'right' || d.align === 'end' ? d.x - d.w : d.x;
                return { text: d.text, left, right: left + d.w };
              })
              .sort((a, b) => a.left - b.left);
            labels += boxes.length;
            for (let i = 1; i < boxes.length; i++)
              // Touching counts too: two labels need at least a few pixels of air to read as two.
              if (boxes[i]!.left - boxes[i - 1]!.right < 8) problems.push(`${boxes[i - 1]!.text} / ${boxes[i]!.text}`);
          }
          g.drawnText = [];
          return { problems, labels };
        });
      let original = '';
      const setWidth = async (width: string) => {
        await page.goto(`${t.url}/admin/`);
        await page.locator('[data-chart="activity"] canvas').waitFor();
        await page.getByRole('button', { name: 'Customise' }).click();
        original ||= await page.getByLabel('Width of Activity').inputValue();
        await Promise.all([
          page.waitForResponse((r) => r.url().endsWith('/api/dashboard/layout') && r.request().method() === 'PUT'),
          page.getByLabel('Width of Activity').selectOption(width),
        ]);
      };
      for (const width of ['3', '12']) {
        await setWidth(width);
        for (const range of ['Show the last 24 hours', 'Show the last 7 days', 'Show the last 30 days', 'Show the last hour']) {
          const button = page.locator('[data-widget="activity"]').getByRole('button', { name: range, exact: true });
          if ((await button.count()) === 0) continue;
          await page.evaluate(() => ((globalThis as any).drawnText = []));
          await button.click();
          await page.locator('[data-widget="activity"]').getByRole('button', { name: range, pressed: true }).waitFor();
          await page.waitForFunction(() => ((globalThis as any).drawnText as any[]).some((d) => /\d/.test(d.text)));
          const { problems, labels } = await overlaps();
          expect(labels, `time labels drawn (${range}, width ${width})`).to.be.greaterThan(1);
          expect(problems, `overlapping time labels (${range}, width ${width})`).to.deep.equal([]);
        }
      }
      await setWidth(original); // the next test starts from the card's own width
    });

    it('the chart follows the card: a wider card redraws a wider canvas', async function () {
      const { page, context } = b;
      await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
      await page.goto(`${t.url}/admin/`);
      const canvas = page.locator('[data-chart="activity"] canvas');
      await canvas.waitFor();
      const before = (await canvas.boundingBox())!.width;
      await page.getByRole('button', { name: 'Customise' }).click();
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/dashboard/layout') && r.request().method() === 'PUT'),
        page.getByLabel('Width of Activity').selectOption('12'),
      ]);
      await page.waitForFunction(
        (w) => ((globalThis as any).document.querySelector('[data-chart="activity"] canvas')?.getBoundingClientRect().width ?? 0) > w + 100,
        before,
      );
    });
  });
}
