import logging

logger = logging.getLogger(__name__)


class Trainer:
    def _save_checkpoint(self, path):
        """Calls get_state_dict on every rank, saves on rank 0."""
        state_dict = self.accelerator.get_state_dict(self.model)
        if self.accelerator.is_main_process:
            logger.info("get_state_dict done; is_main_process saves to %s", path)
            self.save(state_dict, path)
