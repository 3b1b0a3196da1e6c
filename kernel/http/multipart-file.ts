import { z } from 'zod';

/** A file field of a multipart/form-data body, for RouteRequestSchemas.multipart (documentation only). */
export const multipartFile = (description: string) => z.string().meta({ format: 'binary', description });
