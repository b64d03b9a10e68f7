// A secret path pattern as an input field (policies, template policies, platform grants): a glob
// that compiles (glob.ts), its fault named as the glob compiler words it.
import { z } from 'zod';
import { compileGlob } from './glob.ts';

export const globPatternField = z.string().min(1).max(512).superRefine((p, c) => {
  try {
    compileGlob(p);
  } catch (e) {
    c.addIssue({ code: 'custom', message: (e as Error).message.replace(/^secret_path_pattern:\s*/, '') });
  }
});
