from cupy import ElementwiseKernel as Elementwise
import cupyx.scipy.ndimage

square = Elementwise("float32 x", "float32 y", "y = x * x", "square")
