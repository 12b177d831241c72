"""The fast simulator: numba kernels that play the rules of War over integer arrays, checked
round by round against the readable engine (`cardwar.engine`), and the runs built on them."""

MAX_RECORDS = 1000  # the most longest rounds a run keeps (`--records K`); here, free of numba
