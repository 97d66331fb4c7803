// TypeScript step definitions load through tsx.
import { register } from 'tsx/esm/api';
register();
