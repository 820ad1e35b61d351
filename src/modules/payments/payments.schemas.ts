import { Type } from 'typebox';
import { List } from '../../http/schemas.ts';

export const Country = Type.Object(
  {
    code: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2.', examples: ['US'] }),
    name: Type.String({ examples: ['United States'] }),
  },
  { title: 'Country' },
);

export const CountryList = List(Country);
