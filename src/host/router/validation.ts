import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

export interface ValidationProblem {
  /** JSON pointer of the value, `` for the arguments object itself. */
  path: string;
  message: string;
}

/**
 * Checks call arguments against a tool's JSON input schema. Unknown
 * top-level fields are refused unless the schema explicitly allows extra
 * properties: a model that invents a field has misread the tool.
 */
export class ArgumentValidator {
  private readonly ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  private readonly compiled = new Map<string, ValidateFunction | Error>();

  validate(schema: Record<string, unknown>, args: unknown): ValidationProblem[] {
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      return [{ path: '', message: 'arguments must be a JSON object' }];
    }
    const validate = this.compile(schema);
    if (validate instanceof Error) return [{ path: '', message: `the tool's input schema is not usable: ${validate.message}` }];
    const problems = validate(args) ? [] : (validate.errors ?? []).map(describe);
    return [...problems, ...unknownFields(schema, args as Record<string, unknown>, problems)];
  }

  private compile(schema: Record<string, unknown>): ValidateFunction | Error {
    const key = JSON.stringify(schema);
    let compiled = this.compiled.get(key);
    if (!compiled) {
      // `$schema` may name a draft this Ajv instance has not loaded; the keywords tools use are common to all.
      const { $schema: _ignored, ...rest } = schema;
      try {
        compiled = this.ajv.compile(rest);
      } catch (error) {
        compiled = error instanceof Error ? error : new Error(String(error));
      }
      this.compiled.set(key, compiled);
    }
    return compiled;
  }
}

function describe(error: ErrorObject): ValidationProblem {
  const path = error.instancePath;
  switch (error.keyword) {
    case 'required':
      return { path, message: `missing required field ${JSON.stringify(error.params.missingProperty)}` };
    case 'additionalProperties':
      return { path, message: `unknown field ${JSON.stringify(error.params.additionalProperty)}` };
    case 'type':
      return { path, message: `${path || 'value'} must be ${String(error.params.type)}` };
    case 'enum':
      return { path, message: `${path || 'value'} must be one of ${JSON.stringify(error.params.allowedValues)}` };
    default:
      return { path, message: `${path || 'value'} ${error.message ?? 'is not valid'}` };
  }
}

function unknownFields(schema: Record<string, unknown>, args: Record<string, unknown>, already: ValidationProblem[]): ValidationProblem[] {
  if (schema.additionalProperties !== undefined) return [];
  if (schema.patternProperties !== undefined) return [];
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const reported = new Set(already.map((p) => p.message));
  return Object.keys(args)
    .filter((field) => !(field in properties))
    .map((field) => ({ path: '', message: `unknown field ${JSON.stringify(field)}` }))
    .filter((p) => !reported.has(p.message));
}
