import { expect } from 'chai';
import { PASSWORD, setUpBy, signInWithApi, useBrowser, useUiKernel } from '../helpers/browser.js';

const ADMIN = 'owner@example.com';

describe('GraphQL explorer in the browser', function () {
  this.timeout(90000);
  const b = useBrowser();
  // NODE_ENV=production, as `npm start`: the explorer is on there too (GRAPHQL_EXPLORER auto).
  const t = useUiKernel(setUpBy(ADMIN, { env: 'production' }));

  it('in production, an anonymous browser is told how to sign in; after signing in it comes back to GraphiQL, completes from the schema and runs a query with the session cookie', async function () {
    const { page } = b;
    // Every CSP violation of the page (the event fires for blocked scripts, styles, fonts and connections alike).
    await page.addInitScript(() => {
      const seen: string[] = ((globalThis as any).__cspViolations = []);
      (globalThis as any).document.addEventListener('securitypolicyviolation', (e: any) =>
        seen.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
      );
    });
    const external: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(t.url) && !r.url().startsWith('data:')) external.push(r.url());
    });

    const anonymous = await page.goto(`${t.url}/api/graphql`);
    expect(anonymous?.status()).to.equal(401);
    await page.getByRole('heading', { name: 'Sign in to use the GraphQL explorer', level: 1 }).waitFor();
    await page.getByText('POST /api/graphql').first().waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL(/\/login\?returnTo=%2Fapi%2Fgraphql$/);
    await page.getByLabel('Email').fill(ADMIN);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${t.url}/api/graphql`);
    await page.locator('.graphiql-query-editor .CodeMirror').waitFor();
    expect(await page.title()).to.equal('GraphQL explorer · CMS');

    // Autocomplete from introspection: typing a root field's start offers it.
    const editor = page.locator('.graphiql-query-editor .CodeMirror');
    await editor.evaluate((el: any) => el.CodeMirror.setValue('{\n  \n}'));
    await editor.evaluate((el: any) => el.CodeMirror.setCursor({ line: 1, ch: 2 }));
    await editor.click();
    await page.locator('.graphiql-query-editor .CodeMirror textarea').evaluate((el: any) => el.focus());
    await editor.evaluate((el: any) => el.CodeMirror.setCursor({ line: 1, ch: 2 }));
    await page.keyboard.type('collec');
    await page.locator('.CodeMirror-hints').getByText('collections', { exact: true }).waitFor();
    await page.keyboard.press('Escape');

    await editor.evaluate((el: any) => el.CodeMirror.setValue('{ __typename collections { name } }'));
    await page.locator('.graphiql-execute-button').click();
    const response = page.locator('.graphiql-response .CodeMirror');
    await response.getByText('"Query"').waitFor();
    expect(await response.innerText()).to.contain('"collections"');

    // The schema's documentation (from introspection).
    await page.getByRole('button', { name: /Show Documentation Explorer/i }).click();
    await page.locator('.graphiql-doc-explorer').getByText('Query', { exact: true }).first().waitFor();

    // A dialog (GraphiQL's settings): its positioning and scroll lock work under the page's CSP.
    await page.getByRole('button', { name: /Open settings dialog/i }).click();
    await page.getByRole('dialog').getByText('Theme').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    const violations: string[] = await page.evaluate(() => (globalThis as any).__cspViolations);
    expect(violations, violations.join('\n')).to.deep.equal([]);
    expect(external, external.join('\n')).to.deep.equal([]);
  });

  it("the System page's GraphQL explorer button opens the explorer", async () => {
    const { page, context } = b;
    await signInWithApi(context, t.url, ADMIN, PASSWORD);
    await page.goto(`${t.url}/admin/system`);
    await page.getByRole('heading', { name: 'System', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'GraphQL explorer' }).click();
    await page.waitForURL(`${t.url}/api/graphql`);
    await page.locator('.graphiql-query-editor .CodeMirror').waitFor();
  });
});
