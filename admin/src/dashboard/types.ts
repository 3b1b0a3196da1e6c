export interface LicenseState {
  widgetId: string;
  license: 'freemium' | 'paid';
  allowed: boolean;
  reason: 'freemium' | 'trial' | 'licensed' | 'expired';
  trialEndsAt: string;
  licensee?: string;
  keyProblem?: string;
}
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
