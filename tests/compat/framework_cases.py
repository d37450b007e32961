"""Small programs over MindSpore 2.x's framework names (``mindspore.runtime`` streams and limits,
``run_check``, Cell conveniences, amp and train helpers) whose ``str(result)`` scripts/record_framework_extras.py
records from MindSpore 2.10 and tests/compat/test_framework_extras.py compares with opbuild's. Each program runs
with ``ms`` (the framework) and ``np`` and sets ``result``; imports no framework itself. A program whose
MindSpore result depends on the machine (CPU limits print uninitialised numbers there) compares the keys."""

CASES = {
    "stream_limit_set": ("s = ms.runtime.Stream()\nms.runtime.set_stream_limit(s, 8, 4)\n"
                         "result = sorted(ms.runtime.get_stream_limit(s))"),
    "stream_limit_reset": "s = ms.runtime.Stream()\nms.runtime.set_stream_limit(s, 8, 8)\n"
                          "ms.runtime.reset_stream_limit(s)\nresult = sorted(ms.runtime.get_stream_limit(s))",
    "device_limit_keys": "ms.runtime.set_device_limit(0, 8, 8)\nresult = sorted(ms.runtime.get_device_limit(0))",
    "kernel_capture": "result = ms.runtime.set_kernel_launch_capture(True, ['matmul', 'addn'])",
    "stream_sync": "s = ms.runtime.Stream()\nresult = s.synchronize()",
    "run_check": ("import io, contextlib\nbuf = io.StringIO()\nwith contextlib.redirect_stdout(buf):\n"
                  "    ms.run_check()\nresult = buf.getvalue().splitlines()[-1]"),
}
