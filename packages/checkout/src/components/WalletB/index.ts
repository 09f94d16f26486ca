export { WalletB } from "./WalletB.js";
