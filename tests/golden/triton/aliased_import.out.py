from triton import jit as kernel
import triton.language as language


@kernel
def scale(x_ptr, BLOCK: language.constexpr):
    pass


compiled = kernel(lambda x: x)
