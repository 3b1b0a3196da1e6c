// Shapes of the importers plugin's answers (plugins/importers/routes.ts).
export interface Source {
  format: string;
  label: string;
  extensions: string[];
  description: string;
  features: string[];
}
export interface Validation {
  valid: boolean;
  detectedFormat: string | null;
  confidence: number;
  summary: Record<string, number>;
  acfFields: string[];
  warnings: Array<{ message: string; line?: number }>;
  blockedReasons: string[];
  uploadId: string;
}
export interface FieldMapping {
  entity: string;
  sourceField: string;
  targetField: string | null;
  confidence: number;
  type: string | null;
}
export interface Operation {
  action: 'create' | 'update' | 'skip' | 'scaffold';
  sourceType: string;
  targetCollection: string | null;
  count: number;
  note?: string;
}
export interface Plan {
  planId: string;
  uploadId: string;
  format: string;
  scaffold: boolean;
  mode: 'add' | 'merge';
  fieldMappings: FieldMapping[];
  operations: Operation[];
  estimatedDurationMs: number;
  collections: Array<{ name: string; fields: Array<{ name: string; type: string; label: string }>; widgets: Record<string, string> }>;
}
export type SkipReason = 'alreadyImported' | 'unchanged' | 'duplicateInFile' | 'notMapped';
export interface EntityResult {
  imported: number;
  failed: number;
  skipped: number;
  updated: number;
  skipReasons?: Partial<Record<SkipReason, number>>;
}
/** How the results table words each reason a record was skipped. */
export const SKIP_REASONS: Record<SkipReason, string> = {
  alreadyImported: 'imported before (mode add keeps them)',
  unchanged: 'unchanged since the last import',
  duplicateInFile: 'repeated id in this file',
  notMapped: 'not mapped to a collection',
};
export interface Job {
  jobId: string;
  status: 'processing' | 'completed' | 'failed';
  format: string;
  progress: { processed: number; total: number };
  results: Record<string, EntityResult>;
  durationMs: number;
  completedAt: string | null;
  warnings: Array<{ message: string; line?: number }>;
  error?: string;
}
/** Per entity: the target collection ('' = automatic), or false to leave it out. */
export type Targets = Record<string, string | false>;
