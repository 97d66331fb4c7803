// The Workspace contract against the local working-tree adapter.
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import { runWorkspaceContract } from './workspace.contract.js';

runWorkspaceContract('localfs', () => createLocalWorkspace());
