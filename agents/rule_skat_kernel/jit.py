"""The two ways the kernel's functions are compiled.

numba compiles every jitted function on its own and then links in, and optimises again, all the
functions it calls: the cost of a cold compile grows with the depth of the call tree and with
the number of compiled copies (a literal int argument compiles a copy of its own, hence the
``np.int64(...)`` arguments). So the functions called only from the kernel are compiled without
the wrappers a call from Python needs (``inner``); ``kernel.decide_all``, the one entry point,
keeps them (``entry``).

Nothing is compiled with numba's reference counting (``_nrt=False``): with it every call passes
the tables' two dozen arrays through an atomic increment and decrement each, which made a call
cost hundreds of nanoseconds. In exchange the kernel allocates nothing: the caller hands it every
array it writes (``kernel.Work``).
"""

from __future__ import annotations

from numba import njit

inner = njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
entry = njit(cache=True, _nrt=False)
