"""Train with a Lightning Trainer that the config builds."""
import hydra


@hydra.main(config_path="configs", config_name="train")
def main(cfg):
    model = hydra.utils.instantiate(cfg.model)
    trainer = hydra.utils.instantiate(cfg.trainer)
    trainer.fit(model)


if __name__ == "__main__":
    main()
