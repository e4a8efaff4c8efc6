import { expect } from 'chai';
import { ImageReferenceError, parseImageRef } from '../../../providers/gcp/index.js';

describe('GCP boot image references', () => {
  it('resolve a bare name in the machine project', () => {
    expect(parseImageRef('rhcos-9', 'p')).to.deep.equal({ kind: 'image', project: 'p', name: 'rhcos-9' });
  });

  it('parse image and family paths, also as full URLs', () => {
    expect(parseImageRef('projects/rhcos-cloud/global/images/rhcos-9', 'p')).to.deep.equal({
      kind: 'image',
      project: 'rhcos-cloud',
      name: 'rhcos-9',
    });
    expect(
      parseImageRef('https://www.googleapis.com/compute/v1/projects/debian-cloud/global/images/family/debian-12', 'p'),
    ).to.deep.equal({
      kind: 'family',
      project: 'debian-cloud',
      family: 'debian-12',
    });
  });

  it('reject references they cannot read, saying why', () => {
    expect(() => parseImageRef('global/images/x', 'p')).to.throw(ImageReferenceError, /projects\//);
    expect(() => parseImageRef('projects/p/global', 'p')).to.throw(ImageReferenceError, /unexpected image path/);
    expect(() => parseImageRef('projects/p/zones/z/disks/d', 'p')).to.throw(
      ImageReferenceError,
      /unrecognized image path/,
    );
  });
});
