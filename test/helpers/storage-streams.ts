// The stream helpers live with the storage driver contract runner (testing/), which plugin authors import too.
export { randomStream, readAll, sha256Of } from '../../testing/storage-streams.js';
