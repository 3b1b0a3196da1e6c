import { definePlugin } from '../../kernel/sdk.js';
import { TABULAR_FORMATS } from './formats.js';

export default definePlugin({
  register({ registries }) {
    for (const format of TABULAR_FORMATS) registries.importFormats.add(format);
  },
});
