// The 403 every platform-operator route declares (domain/auth/platform-operators.ts decides who).
import { OPERATORS_ONLY } from '../../../domain/auth/platform-operators.ts';

export const NOT_AN_OPERATOR = `Not a platform operator (${OPERATORS_ONLY}; agents never)`;
