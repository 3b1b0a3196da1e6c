/** Steps on admin UI pages that several browser suites take the same way. */
import type { Locator, Page } from 'playwright-core';
import sharp from 'sharp';

/** From any admin page: Collections in the main navigation, then New collection (the schema editor). */
export async function openNewCollection(page: Page): Promise<void> {
  await page.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Collections', exact: true }).click();
  await page.getByRole('heading', { name: 'Content', level: 1 }).waitFor();
  await page.getByRole('link', { name: 'New collection' }).first().click();
  await page.getByRole('heading', { name: 'New collection', level: 1 }).waitFor();
}

/** A PNG of one colour. */
export function solidPng(width: number, height: number, background: { r: number; g: number; b: number }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer();
}

/** In the entry editor: a PNG uploaded from the Cover field's picker, until the field shows its name. */
export async function pickCover(page: Page, name: string, png: Buffer): Promise<void> {
  await page.locator('[data-field="cover"]').getByRole('button', { name: 'Choose file for Cover' }).click();
  const picker = page.getByRole('dialog', { name: 'Choose a file' });
  await picker.locator('input[type="file"]').setInputFiles({ name, mimeType: 'image/png', buffer: png });
  await picker.waitFor({ state: 'hidden' });
  await page.locator('[data-field="cover"]').getByText(name).waitFor();
}

/** On the content-sync page: the add-channel form filled in (name, address, key) and sent; the form. */
export async function addSyncChannel(page: Page, name: string, address: string, key: string): Promise<Locator> {
  const form = page.locator('form.add-form');
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('Address of the other instance').fill(address);
  await form.getByTestId('channel-key').fill(key);
  await form.getByRole('button', { name: 'Add channel' }).click();
  return form;
}

/** On the content-sync page: "Show what would change", until the plan is shown for review. */
export async function showSyncPlan(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Show what would change' }).click();
  await page.getByTestId('plan-review').waitFor();
}
