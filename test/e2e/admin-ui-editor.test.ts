import { expect } from 'chai';
import { openAdminPage, PASSWORD, shot, useAdminUi } from '../helpers/browser.js';
import { responseCookie } from '../helpers/kernel.js';
import { imageBytes, uploadFile } from '../helpers/media-upload.js';

/** Word's clipboard HTML: a style sheet, conditional comments, MsoNormal classes, mso-* styles, <o:p>. */
const WORD_HTML =
  '<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><meta name=Generator content="Microsoft Word 15">' +
  '<style>p.MsoNormal{margin:0cm;font-family:Calibri}</style></head><body lang=EN-GB><!--StartFragment-->' +
  '<p class=MsoNormal style="mso-margin-top-alt:auto;mso-bidi-font-family:Arial"><span style="font-size:12.0pt;mso-ansi-language:EN-GB">' +
  'Quarterly <b>report</b><o:p></o:p></span></p>' +
  '<p class=MsoListParagraph style="mso-list:l0 level1 lfo1"><!--[if !supportLists]--><span style="mso-list:Ignore">·<span>&nbsp;&nbsp;</span></span><!--[endif]-->' +
  'Revenue up<o:p></o:p></p><!--EndFragment--></body></html>';
/** Google Docs' clipboard HTML: everything inside a <b style="font-weight:normal" id="docs-internal-guid-…">. */
const DOCS_HTML =
  '<meta charset="utf-8"><b style="font-weight:normal;" id="docs-internal-guid-5d1e2f3a-7fff-1234"><p dir="ltr" style="line-height:1.38;margin-top:0pt">' +
  '<span style="font-size:11pt;font-family:Arial;font-weight:400;vertical-align:baseline">Plain and </span>' +
  '<span style="font-size:11pt;font-family:Arial;font-weight:700">strong</span></p></b>';

describe('admin UI: the rich-text and markdown editors in the browser', function () {
  this.timeout(120000);
  let cookie: string;
  let image: { _id: string; url: string };
  const { b, t } = useAdminUi(undefined, {
    seed: async () => {
      const login = await t.request('/api/user/login', { method: 'POST', json: { email: 'ada@example.com', password: PASSWORD } });
      cookie = responseCookie(login)!;
      const created = await t.request('/api/collections', {
        method: 'POST',
        headers: { cookie },
        json: {
          name: 'stories',
          singular: 'story',
          fields: [
            { name: 'title', type: 'text', required: true },
            { name: 'body', type: 'richtext' },
            { name: 'notes', type: 'markdown' },
          ],
        },
      });
      expect(created.status, await created.clone().text()).to.equal(201);
      const up = await uploadFile(t, await imageBytes(320, 200), 'harbour-at-dusk.png', { identity: '', headers: { cookie } });
      expect(up.status, await up.clone().text()).to.equal(201);
      image = (await up.json()).data;
    },
  });
  const entryOf = async (id: string) => (await (await t.request(`/api/collections/stories/${id}`, { headers: { cookie } })).json()).data;

  it('writes a heading, bold text, a list, a link and an image with the toolbar and the keyboard; the API stores that HTML', async function () {
    const { page } = b;
    await openAdminPage(b, t, 'content/stories/new');
    await page.getByLabel(/^Title/).fill('Harbour walk');
    const editor = page.getByRole('textbox', { name: /^Body/ });
    const toolbar = page.getByRole('toolbar', { name: 'Formatting of Body' });
    expect(await editor.getAttribute('aria-invalid')).to.equal('false');
    // Where the focus is while each toolbar click is handled: it must stay in the text, else the editor takes it
    // back only on the next animation frame and keys typed at once go to the button (a lost first list item).
    await editor.evaluate((el) => {
      const log: boolean[] = ((globalThis as unknown as { focusAtClick: boolean[] }).focusAtClick = []);
      el.ownerDocument.addEventListener('click', () => log.push(el === el.ownerDocument.activeElement), true);
    });
    const hadFocus = async () => {
      const log = await editor.evaluate(() => (globalThis as unknown as { focusAtClick: boolean[] }).focusAtClick.splice(0));
      return log.length > 0 && log.every(Boolean);
    };

    await editor.click();
    await hadFocus(); // starts the log afresh
    await toolbar.getByRole('button', { name: 'Heading 2' }).click();
    expect(await hadFocus(), 'the text keeps the focus through a toolbar click').to.equal(true);
    expect(await toolbar.getByRole('button', { name: 'Heading 2' }).getAttribute('aria-pressed')).to.equal('true');
    await page.keyboard.type('Travel notes');
    await page.keyboard.press('Enter');
    expect(await toolbar.getByRole('button', { name: 'Heading 2' }).getAttribute('aria-pressed')).to.equal('false');
    await page.keyboard.type('Some ');
    await page.keyboard.press('Control+b');
    await page.keyboard.type('bold');
    expect(await toolbar.getByRole('button', { name: 'Bold' }).getAttribute('aria-pressed')).to.equal('true');
    await page.keyboard.press('Control+b');
    await page.keyboard.type(' words.');
    await page.keyboard.press('Enter');
    await toolbar.getByRole('button', { name: 'Bullet list' }).click();
    expect(await hadFocus(), 'the text keeps the focus through a toolbar click').to.equal(true);
    await editor.locator('ul > li').waitFor();
    await toolbar.getByRole('button', { name: 'Bullet list', pressed: true }).waitFor();
    await page.keyboard.type('First');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Second');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter'); // an empty item leaves the list
    await page.keyboard.type('See the site');
    for (let i = 0; i < 'the site'.length; i++) await page.keyboard.press('Shift+ArrowLeft');

    // A javascript: address is refused in the link dialog; an https one is set.
    await toolbar.getByRole('button', { name: 'Link', exact: true }).click();
    const linkDialog = page.getByRole('dialog', { name: 'Link' });
    await linkDialog.getByLabel('Address').fill('javascript:alert(1)');
    await linkDialog.getByRole('button', { name: 'Apply link' }).click();
    await linkDialog
      .getByRole('alert')
      .getByText(/http\(s\) or mailto/)
      .waitFor();
    await linkDialog.getByLabel('Address').fill('https://example.com/guide');
    await linkDialog.getByRole('button', { name: 'Apply link' }).click();
    await linkDialog.waitFor({ state: 'hidden' });
    expect(await toolbar.getByRole('button', { name: 'Link', exact: true }).getAttribute('aria-pressed')).to.equal('true');
    await page.keyboard.press('End');

    // An image from the media library, with its alternative text.
    await toolbar.getByRole('button', { name: 'Insert image from the media library' }).click();
    const library = page.getByRole('dialog', { name: 'Insert an image' });
    await library.getByRole('button', { name: 'Choose harbour-at-dusk.png' }).click();
    const alt = page.getByRole('dialog', { name: 'Describe the image' });
    expect(await alt.getByLabel('Alternative text').inputValue()).to.equal('harbour at dusk');
    await alt.getByLabel('Alternative text').fill('The harbour at dusk');
    await alt.getByRole('button', { name: 'Insert image' }).click();
    await editor.locator('img').waitFor();

    // Undo takes the image away again, redo brings it back.
    await toolbar.getByRole('button', { name: 'Undo' }).click();
    expect(await editor.locator('img').count()).to.equal(0);
    await toolbar.getByRole('button', { name: 'Redo' }).click();
    await editor.locator('img').waitFor();

    await page.getByRole('button', { name: 'Create story' }).click();
    await page.getByRole('heading', { name: 'Harbour walk', level: 1 }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop()!;
    expect((await entryOf(id)).body).to.equal(
      '<h2>Travel notes</h2><p>Some <strong>bold</strong> words.</p>' +
        '<ul><li><p>First</p></li><li><p>Second</p></li></ul>' +
        '<p>See <a href="https://example.com/guide">the site</a></p>' +
        `<img src="${image.url}" alt="The harbour at dusk" />`,
    );
    expect(image.url).to.match(/^\/files\//);
    // Loaded again, the editor shows what was stored.
    await page.reload();
    await page.getByRole('textbox', { name: /^Body/ }).getByRole('heading', { name: 'Travel notes', level: 2 }).waitFor();
    expect(await page.getByRole('textbox', { name: /^Body/ }).locator('a').getAttribute('href')).to.equal('https://example.com/guide');
  });

  it('cleans HTML pasted from Word and Google Docs', async function () {
    const { page } = b;
    await openAdminPage(b, t, 'content/stories/new');
    await page.getByLabel(/^Title/).fill('Pasted');
    const editor = page.getByRole('textbox', { name: /^Body/ });
    await editor.click();
    const paste = (html: string) =>
      editor.evaluate((el, data) => {
        // Browser globals (the tests compile without the DOM library).
        const w = globalThis as any;
        const dt = new w.DataTransfer();
        dt.setData('text/html', data);
        dt.setData('text/plain', 'plain fallback');
        el.dispatchEvent(new w.ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
      }, html);
    await paste(WORD_HTML);
    await editor.getByText('Revenue up').waitFor();
    // A paste of one paragraph joins the paragraph at the cursor: a new line first.
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await paste(DOCS_HTML);
    await editor.getByText('strong', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Create story' }).click();
    await page.getByRole('heading', { name: 'Pasted', level: 1 }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop()!;
    expect((await entryOf(id)).body).to.equal(
      '<p>Quarterly <strong>report</strong></p><p>Revenue up</p><p>Plain and <strong>strong</strong></p>',
    );
  });

  it('edits a markdown field with a Write / Preview switch; the source is stored, the preview is sanitised', async function () {
    const { page } = b;
    await openAdminPage(b, t, 'content/stories/new');
    await page.getByLabel(/^Title/).fill('Plans');
    const source = '## Plan\n\n- **one**\n- [two](https://example.com/two)\n\n<img src="x" onerror="window.__pwned = 1">';
    await page.getByLabel(/^Notes/).fill(source);
    const field = page.locator('[data-field="notes"]');
    // Both editors sit in the same bordered frame (one class in base.css).
    const frames = await page
      .locator('.editor-frame')
      .evaluateAll((els) => els.map((e) => (globalThis as any).getComputedStyle(e).borderTopWidth));
    expect(frames).to.deep.equal(['1px', '1px']);
    await shot(page, 'content-editors');
    await field.getByRole('tab', { name: 'Preview' }).click();
    expect(await field.getByRole('tab', { name: 'Preview' }).getAttribute('aria-selected')).to.equal('true');
    const preview = field.getByRole('tabpanel', { name: 'Preview' });
    await preview.getByRole('heading', { name: 'Plan', level: 2 }).waitFor();
    expect(await preview.locator('strong').textContent()).to.equal('one');
    expect(await preview.getByRole('link', { name: 'two' }).getAttribute('href')).to.equal('https://example.com/two');
    expect(await preview.locator('img').getAttribute('onerror')).to.equal(null);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).to.equal(undefined);
    await field.getByRole('tab', { name: 'Write' }).click();
    expect(await page.getByLabel(/^Notes/).inputValue()).to.equal(source);
    await page.getByRole('button', { name: 'Create story' }).click();
    await page.getByRole('heading', { name: 'Plans', level: 1 }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop()!;
    expect((await entryOf(id)).notes).to.equal(source);
  });
});
