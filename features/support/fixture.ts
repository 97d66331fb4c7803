// The one repository every scenario starts from: tiny, literal, with a history that exercises the filters.
import type { CommitSpec } from '../../test/support/gitdir.js';

/** GitHub name of the repository in the GitHub assembly. */
export const GITHUB_REPO = 'acme/platform';

/**
 * Perimeter "infra" reads infra/** and writes infra/aws/**; perimeter "landing" reads and writes apps/landing/**.
 * The history holds, for each of them, commits that are readable, mixed, and purely out of scope.
 */
export const PLATFORM_HISTORY: CommitSpec[] = [
  {
    message: 'initial layout',
    files: {
      'README.md': '# platform\n',
      'infra/aws/main.tf': 'resource "aws_s3_bucket" "logs" {}\n',
      'infra/gcp/main.tf': 'resource "google_storage_bucket" "logs" {}\n',
      'apps/landing/index.html': '<h1>Landing</h1>\n',
      'secrets/prod.env': 'DB_PASSWORD=hunter2\n',
    },
  },
  {
    message: 'infra: tune aws buckets',
    files: { 'infra/aws/main.tf': 'resource "aws_s3_bucket" "logs" { versioning = true }\n' },
  },
  { message: 'landing: new hero', files: { 'apps/landing/index.html': '<h1>Landing, now with a hero</h1>\n' } },
  {
    message: 'chore: bump everything',
    files: {
      'infra/aws/main.tf': 'resource "aws_s3_bucket" "logs" { versioning = true } # v2\n',
      'apps/landing/index.html': '<h1>Landing v2</h1>\n',
      'secrets/prod.env': 'DB_PASSWORD=correct-horse\n',
    },
  },
  { message: 'secrets: rotate prod password', files: { 'secrets/prod.env': 'DB_PASSWORD=battery-staple\n' } },
];

/** Read and write globs of the two standard perimeters. */
export const STANDARD_PERIMETERS: Record<string, { read: string[]; write: string[] }> = {
  infra: { read: ['infra/**'], write: ['infra/aws/**'] },
  landing: { read: ['apps/landing/**'], write: ['apps/landing/**'] },
};
