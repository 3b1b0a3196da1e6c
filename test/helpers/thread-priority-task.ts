/** Piscina task file for the pool tests: the nice value of the worker thread that runs the task (Linux: per thread). */
import { getPriority } from 'node:os';

export function threadPriority(): number {
  return getPriority(0);
}
