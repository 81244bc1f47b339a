"""The header of one array of a ``.npz`` file, read without loading the array.

The model files users exchange (Q-tables, the numpy learner's weights) are ``.npz`` archives;
their loaders check each array's shape and type against what the format holds *before*
allocating it, so a crafted file cannot make them reserve gigabytes or run code. This is the
one reader of those headers.
"""
from __future__ import annotations

import zipfile

import numpy as np


class NpyHeaderError(ValueError):
    """An array whose ``.npy`` header this reader does not accept (the callers name the file)."""


def npy_header(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> tuple[tuple[int, ...], np.dtype, int]:
    """(shape, dtype, header length in bytes) of the ``.npy`` member ``info`` of ``zf``;
    raises `NpyHeaderError` for a format version other than 1.0 or 2.0."""
    with zf.open(info) as fh:
        version = np.lib.format.read_magic(fh)
        if version not in ((1, 0), (2, 0)):
            raise NpyHeaderError(f".npy version {version}")
        read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, dtype = read(fh)
        return shape, dtype, fh.tell()


__all__ = ["npy_header", "NpyHeaderError"]
