"""A WAV file cut inside a frame (a partial download): a ValueError naming the file and saying it is cut
short, from the reader and through ``YesNoDataset``, not NumPy's "buffer size must be a multiple of element
size" or "cannot reshape" that name neither."""

from __future__ import annotations

import wave

import numpy as np
import pytest

import opbuild.dataset as ds
from opbuild.dataset.audio_files import read_wav


def _wav(path, channels: int, samples: np.ndarray) -> bytes:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(samples.astype("<i2").tobytes())
    return path.read_bytes()


@pytest.mark.parametrize("cut", [1, 2, 3])
def test_a_wav_cut_inside_a_frame_is_named(tmp_path, cut):
    path = tmp_path / "1_0_1_0_1_0_1_0.wav"
    raw = _wav(path, 2, np.arange(20))
    path.write_bytes(raw[:-cut])
    with pytest.raises(ValueError, match=rf"{path.name} ends inside a frame \({40 - cut} bytes of samples, frames "
                                         r"of 4\): the file is cut short"):
        read_wav(str(path))
    with pytest.raises(Exception, match=r"ends inside a frame"):
        list(ds.YesNoDataset(str(tmp_path)).create_tuple_iterator(output_numpy=True))


def test_whole_frames_still_read(tmp_path):
    path = tmp_path / "a.wav"
    _wav(path, 2, np.arange(20))
    wave_data, rate = read_wav(str(path))
    assert rate == 8000
    np.testing.assert_array_equal(wave_data, np.arange(20, dtype=np.float32).reshape(-1, 2).T / np.float32(32767))
