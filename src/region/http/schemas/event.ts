/** The Events recorded about a tenant's object (docs/adr/0040-operability-signals.md), as the tenant reads them. */
import Type from 'typebox';

export const EventRead = Type.Object({
  type: Type.Enum(['Normal', 'Warning']),
  reason: Type.String({ description: 'Why, in one CamelCase word: the condition reason or the step.' }),
  message: Type.String({
    description:
      "What happened. A failure's operator detail (the cloud's own words) is not shown: the message then says so.",
  }),
  count: Type.Integer({ description: 'How many times it happened (repeats are counted, not repeated).' }),
  firstTimestamp: Type.String({ format: 'date-time' }),
  lastTimestamp: Type.String({ format: 'date-time' }),
});
export type EventRead = Type.Static<typeof EventRead>;
