/**
 * Request validation with TypeBox's own compiler: every body, path and query against its schema, each error turned
 * into a violation naming the field (a JSON pointer into the request) and the rule (the schema keyword).
 */
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { patternMeaning } from '../apis/shared.ts';
import { violation, type FieldViolation } from './problem.ts';

interface SchemaError {
  readonly keyword: string;
  readonly instancePath: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly message: string;
}

/** Where a request part's fields start, so `/spec/prefix` reads as the body's and `/networkID` as the path's. */
const PART_PREFIX: Readonly<Record<string, string>> = { body: '', params: '', querystring: '', headers: '' };

export const typeboxValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = Compile(schema);
  const part = httpPart ?? 'body';
  return (value: unknown): { value: unknown } | { error: Error } => {
    // Path and query values arrive as strings: convert them as the schema says before checking.
    const converted = part === 'body' ? value : Value.Convert(schema, value);
    if (check.Check(converted)) return { value: converted };
    const violations = violationsOf([...check.Errors(converted)] as SchemaError[], PART_PREFIX[part] ?? '');
    return {
      error: Object.assign(new Error('request validation failed'), { validation: violations, statusCode: 400 }),
    };
  };
};

/** One violation per field: the most specific error at each pointer, the schema's own wording. */
export function violationsOf(errors: readonly SchemaError[], prefix = ''): FieldViolation[] {
  const byPointer = new Map<string, FieldViolation>();
  for (const error of errors) {
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') continue;
    if (error.keyword === 'boolean') continue; // additionalProperties: false reports the name below
    const pointer = `${prefix}${error.instancePath}`;
    for (const v of expand(error, pointer)) if (!byPointer.has(v.pointer)) byPointer.set(v.pointer, v);
  }
  if (byPointer.size === 0 && errors[0] !== undefined) {
    const first = errors[0];
    return [violation(`${prefix}${first.instancePath}`, first.keyword, first.message)];
  }
  return [...byPointer.values()];
}

function expand(error: SchemaError, pointer: string): FieldViolation[] {
  if (error.keyword === 'required') {
    const names = (error.params['requiredProperties'] as string[] | undefined) ?? [];
    return names.map((name) => violation(`${pointer}/${name}`, 'required', 'is required'));
  }
  if (error.keyword === 'additionalProperties') {
    const names = (error.params['additionalProperties'] as string[] | undefined) ?? [];
    return names.map((name) => violation(`${pointer}/${name}`, 'additionalProperties', 'is not a known field'));
  }
  if (error.keyword === REFINE_KEYWORD) {
    // A refinement's error is `<rule>: <message>` (refined() in the apis' shared schemas).
    const [rule = error.keyword, ...message] = error.message.split(': ');
    return [violation(pointer, rule, message.join(': '))];
  }
  if (error.keyword === 'pattern') {
    const meaning = patternMeaning(String(error.params['pattern']));
    if (meaning !== undefined) return [violation(pointer, 'pattern', meaning)];
  }
  return [violation(pointer, error.keyword, error.message)];
}

const REFINE_KEYWORD = '~refine';
