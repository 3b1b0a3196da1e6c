import type { ApiSchemas } from '../lib/remote';

export type LicenseState = ApiSchemas['LicenseState'];
export interface WidgetInfo {
  id: string;
  name: string;
  description?: string;
  icon?: string;
  license: 'freemium' | 'paid';
  category?: string;
  defaultSize?: { w: number; h: number };
  endpoint: string;
  permission: string;
  canRead: boolean;
  licenseState: LicenseState;
}
