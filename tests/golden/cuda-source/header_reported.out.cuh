#pragma once
__device__ inline float square(float x) { return x * x; }
