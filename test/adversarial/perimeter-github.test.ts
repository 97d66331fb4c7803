// The adversarial run against the github upstream (the shared suite is in ./suite.ts).
import { adversarialSuite } from './suite.js';

adversarialSuite('github');
