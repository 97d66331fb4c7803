// The adversarial run against the local upstream (the shared suite is in ./suite.ts).
import { adversarialSuite } from './suite.js';

adversarialSuite('local');
