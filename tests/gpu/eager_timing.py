"""How the original benchmark's eager times are taken (the method of its H200 figures), shared by the
eager check and the comparison with the original's own references: a 256 MiB write flushes L2, a CUDA
event, the call (host work included), an event, a synchronize; the median of the last 20 of 30 calls."""
import torch

CALLS, KEPT = 30, 20
FLUSH_BYTES = 256 << 20


class EagerTimer:
    def __init__(self):
        self._flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")
        self._start = torch.cuda.Event(enable_timing=True)
        self._end = torch.cuda.Event(enable_timing=True)

    def once(self, call):
        """One call after an L2 flush, in microseconds."""
        self._flush.fill_(1)
        torch.cuda.synchronize()
        self._start.record()
        call()
        self._end.record()
        torch.cuda.synchronize()
        return self._start.elapsed_time(self._end) * 1000.0

    def calls(self, call):
        """CALLS timed calls; the last KEPT, in microseconds."""
        return [self.once(call) for _ in range(CALLS)][-KEPT:]

    def interleaved(self, *calls):
        """CALLS rounds, each timing every call once in turn, so that all of them see the same host and
        GPU conditions; the last KEPT times of each, in microseconds."""
        times = [[] for _ in calls]
        for _ in range(CALLS):
            for kept, call in zip(times, calls):
                kept.append(self.once(call))
        return [kept[-KEPT:] for kept in times]


def follow_the_original_contract():
    """The original's numerics: no TF32, no reduced-precision reductions."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
